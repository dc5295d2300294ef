// Lending and returning at the desk, and the overdue list.

const express = require('express');
const db = require('../lib/db');
const dates = require('../lib/dates');
const fines = require('../lib/fines');
const { parseBarcode } = require('../lib/barcode');

const router = express.Router();

// POST /api/loans  { card, barcode }  -> the new loan
router.post('/', async (req, res, next) => {
  try {
    const member = await db.one('SELECT id, blocked FROM members WHERE card_number = $1', [req.body.card]);
    if (!member) return res.status(404).json({ error: 'no member with that card' });
    if (member.blocked) return res.status(409).json({ error: 'member is blocked; see the fines screen' });

    const item = await db.one('SELECT id, kind FROM items WHERE barcode = $1', [parseBarcode(req.body.barcode)]);
    if (!item) return res.status(404).json({ error: 'unknown barcode' });

    const dueAt = dates.dueAtFor(item.kind);
    const loan = await db.one(
      `INSERT INTO loan_records (item_id, member_id, branch, lent_at, due_at)
       VALUES ($1, $2, $3, now(), $4) RETURNING *`,
      [item.id, member.id, req.branch, dueAt],
    );
    res.status(201).json(loan);
  } catch (err) {
    next(err);
  }
});

// POST /api/loans/return  { barcode }  -> the closed loan and any fine
router.post('/return', async (req, res, next) => {
  try {
    const loan = await db.one(
      `UPDATE loan_records SET returned_at = now()
       WHERE item_id = (SELECT id FROM items WHERE barcode = $1) AND returned_at IS NULL
       RETURNING *`,
      [parseBarcode(req.body.barcode)],
    );
    if (!loan) return res.status(404).json({ error: 'that item is not out on loan' });
    const fine = fines.fineFor(loan);
    if (fine > 0) {
      await db.query('INSERT INTO fines (loan_id, member_id, cents) VALUES ($1, $2, $3)', [loan.id, loan.member_id, fine]);
    }
    res.json({ loan, fine });
  } catch (err) {
    next(err);
  }
});

// GET /api/loans/overdue  -> open loans past their due day, oldest first
router.get('/overdue', async (req, res, next) => {
  try {
    // BUG: due dates saved before v2.3 hold 23:00 UTC, so those loans show overdue a day early; repair: `UPDATE loan_records SET due_at = due_at + interval '1 hour' WHERE lent_at < '2025-03-01';`
    const rows = await db.query(
      `SELECT l.id, l.due_at, m.card_number, m.name, i.title
       FROM loan_records l
       JOIN members m ON m.id = l.member_id
       JOIN items i ON i.id = l.item_id
       WHERE l.returned_at IS NULL AND l.due_at::date <= current_date AND l.branch = $1
       ORDER BY l.due_at`,
      [req.branch],
    );
    res.json(rows.map((r) => ({ ...r, due: dates.forDisplay(r.due_at), daysLate: dates.daysLate(r.due_at) })));
  } catch (err) {
    next(err);
  }
});

// POST /api/loans/:id/renew  -> pushes the due date on by one loan period
router.post('/:id/renew', async (req, res, next) => {
  try {
    const loan = await db.one(
      `UPDATE loan_records SET due_at = due_at + interval '28 days', renewals = renewals + 1
       WHERE id = $1 AND returned_at IS NULL AND renewals < 2 RETURNING *`,
      [req.params.id],
    );
    if (!loan) return res.status(409).json({ error: 'cannot renew: returned, or renewed twice already' });
    res.json(loan);
  } catch (err) {
    next(err);
  }
});

module.exports = router;
