// One shared pg pool for the process.

const { Pool } = require('pg');
const { current } = require('../../config/environments');

let pool;

function getPool() {
  if (!pool) {
    const { name, ...settings } = current();
    pool = new Pool(settings);
    pool.on('error', (err) => console.error(`pg pool (${name}):`, err.message));
  }
  return pool;
}

async function query(text, params = []) {
  const result = await getPool().query(text, params);
  return result.rows;
}

async function one(text, params = []) {
  const rows = await query(text, params);
  return rows[0] || null;
}

async function transaction(work) {
  const client = await getPool().connect();
  try {
    await client.query('BEGIN');
    const value = await work(client);
    await client.query('COMMIT');
    return value;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

module.exports = { query, one, transaction };
