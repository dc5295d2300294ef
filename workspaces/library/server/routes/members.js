// Member records: look-up at the desk, sign-up, and blocking.

const express = require('express');
const db = require('../lib/db');

const router = express.Router();
const BLOCK_AT_CENTS = 1000;

// GET /api/members/:card
router.get('/:card', async (req, res, next) => {
  try {
    const member = await db.one(
      `SELECT m.id, m.card_number, m.name, m.email, m.blocked,
              coalesce(sum(f.cents) FILTER (WHERE f.paid_at IS NULL), 0) AS owed_cents
       FROM members m LEFT JOIN fines f ON f.member_id = m.id
       WHERE m.card_number = $1 GROUP BY m.id`,
      [req.params.card],
    );
    if (!member) return res.status(404).json({ error: 'no member with that card' });
    res.json(member);
  } catch (err) {
    next(err);
  }
});

// POST /api/members  { name, email, card }
router.post('/', async (req, res, next) => {
  const { name, email, card } = req.body;
  if (!name || !card) return res.status(400).json({ error: 'name and card number are required' });
  try {
    const member = await db.one(
      'INSERT INTO members (name, email, card_number, home_branch) VALUES ($1, $2, $3, $4) RETURNING *',
      [name.trim(), email ? email.trim().toLowerCase() : null, card, req.branch],
    );
    res.status(201).json(member);
  } catch (err) {
    if (err.code === '23505') return res.status(409).json({ error: 'that card number is already in use' });
    next(err);
  }
});

// POST /api/members/:card/recheck  -> blocks or unblocks by the amount owed
router.post('/:card/recheck', async (req, res, next) => {
  try {
    const row = await db.one(
      `UPDATE members m SET blocked = (
         SELECT coalesce(sum(cents), 0) >= $2 FROM fines WHERE member_id = m.id AND paid_at IS NULL)
       WHERE card_number = $1 RETURNING blocked`,
      [req.params.card, BLOCK_AT_CENTS],
    );
    res.json(row || { error: 'no member with that card' });
  } catch (err) {
    next(err);
  }
});

module.exports = router;
