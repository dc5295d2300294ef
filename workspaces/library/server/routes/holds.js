// Holds: a member asks for the next free copy of a title.
// The queue is first come, first served per title across all branches.

const express = require('express');
const db = require('../lib/db');

const router = express.Router();
const MAX_HOLDS = 6;

// POST /api/holds  { card, bookId, pickupBranch }
router.post('/', async (req, res, next) => {
  const { card, bookId, pickupBranch } = req.body;
  try {
    const member = await db.one('SELECT id FROM members WHERE card_number = $1 AND NOT blocked', [card]);
    if (!member) return res.status(403).json({ error: 'card unknown or blocked' });
    const { count } = await db.one(
      'SELECT count(*)::int AS count FROM holds WHERE member_id = $1 AND collected_at IS NULL',
      [member.id],
    );
    if (count >= MAX_HOLDS) return res.status(409).json({ error: `at most ${MAX_HOLDS} open holds` });
    const hold = await db.one(
      'INSERT INTO holds (book_id, member_id, pickup_branch) VALUES ($1, $2, $3) RETURNING *',
      [bookId, member.id, pickupBranch],
    );
    res.status(201).json(hold);
  } catch (err) {
    next(err);
  }
});

// GET /api/holds/queue/:bookId  -> position of each open hold
router.get('/queue/:bookId', async (req, res, next) => {
  try {
    const rows = await db.query(
      `SELECT id, pickup_branch, placed_at,
              row_number() OVER (ORDER BY placed_at) AS position
       FROM holds WHERE book_id = $1 AND collected_at IS NULL`,
      [req.params.bookId],
    );
    res.json(rows);
  } catch (err) {
    next(err);
  }
});

module.exports = router;
