// Connection settings per environment, chosen by SHELFMARK_ENV.
// Passwords are read from PGPASSWORD on the host; they are never committed.

const environments = {
  local: {
    host: process.env.PGHOST || 'localhost',
    port: 5432,
    database: 'shelfmark_dev',
    user: 'shelfmark',
  },
  staging: {
    host: 'pg-staging.lindenau-bib.internal',
    port: 5432,
    database: 'shelfmark_staging',
    user: 'shelfmark_app',
    ssl: true,
  },
  production: {
    host: 'pg-main.lindenau-bib.internal',
    port: 5432,
    database: 'shelfmark',
    user: 'shelfmark_app',
    ssl: true,
    max: 20,
  },
};

function current() {
  const name = process.env.SHELFMARK_ENV || 'local';
  const settings = environments[name];
  if (!settings) {
    throw new Error(`unknown SHELFMARK_ENV "${name}"; use one of ${Object.keys(environments).join(', ')}`);
  }
  return { name, ...settings };
}

module.exports = { environments, current };
