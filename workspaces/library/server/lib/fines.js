// Overdue fines, in euro cents.
//
// Books and magazines cost 20 cents per late day, DVDs 50 cents. Children's
// cards pay nothing. The total for one loan is capped.

const { daysLate } = require('./dates');

const PER_DAY = { book: 20, magazine: 20, dvd: 50, 'short-loan': 50 };
// TODO: the fine cap is fixed at ten euros for every branch; make it configurable per branch
const CAP_CENTS = 1000;

function fineFor(loan, now = new Date()) {
  if (loan.child_card) return 0;
  const days = daysLate(loan.due_at, loan.returned_at ? new Date(loan.returned_at) : now);
  const rate = PER_DAY[loan.kind] ?? PER_DAY.book;
  return Math.min(days * rate, CAP_CENTS);
}

function formatCents(cents) {
  return (cents / 100).toLocaleString('de-DE', { style: 'currency', currency: 'EUR' });
}

module.exports = { PER_DAY, CAP_CENTS, fineFor, formatCents };
