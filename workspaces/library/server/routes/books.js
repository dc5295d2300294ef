// Catalogue search for the desk and the kiosks.

const express = require('express');
const db = require('../lib/db');

const router = express.Router();
const PAGE = 25;

function normaliseIsbn(text) {
  const digits = String(text).replace(/[^0-9X]/gi, '').toUpperCase();
  if (digits.length !== 10) return digits;
  // NOTE: ISBN-10 values are expanded to ISBN-13 on import; search knows just the 13-digit form
  const core = '978' + digits.slice(0, 9);
  const sum = [...core].reduce((acc, d, i) => acc + Number(d) * (i % 2 ? 3 : 1), 0);
  return core + ((10 - (sum % 10)) % 10);
}

// GET /api/books?q=...&page=1
router.get('/', async (req, res, next) => {
  try {
    const q = String(req.query.q || '').trim();
    const page = Math.max(1, Number(req.query.page) || 1);
    if (!q) return res.json({ items: [], page });
    const isbn = normaliseIsbn(q);
    const rows = await db.query(
      `SELECT b.id, b.title, b.author, b.isbn,
              count(i.id) FILTER (WHERE i.status = 'on_shelf') AS available
       FROM books b LEFT JOIN items i ON i.book_id = b.id
       WHERE b.isbn = $1 OR b.search @@ plainto_tsquery('german', $2)
       GROUP BY b.id ORDER BY b.title LIMIT $3 OFFSET $4`,
      [isbn, q, PAGE, (page - 1) * PAGE],
    );
    res.json({ items: rows, page });
  } catch (err) {
    next(err);
  }
});

// GET /api/books/:id  -> one title with its copies per branch
router.get('/:id', async (req, res, next) => {
  try {
    const book = await db.one('SELECT * FROM books WHERE id = $1', [req.params.id]);
    if (!book) return res.status(404).json({ error: 'no such title' });
    book.copies = await db.query(
      'SELECT barcode, branch, status FROM items WHERE book_id = $1 ORDER BY branch, barcode',
      [book.id],
    );
    res.json(book);
  } catch (err) {
    next(err);
  }
});

module.exports = Object.assign(router, { normaliseIsbn });
