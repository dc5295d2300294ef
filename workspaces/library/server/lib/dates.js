// Date helpers for loans.
//
// Since v2.3 the process runs with TZ=UTC and every due date is stored as
// midnight UTC at the start of the day *after* the last lending day, so a loan
// is overdue once now >= due_at. Desk pages convert to Europe/Berlin for display.

const DAY_MS = 24 * 60 * 60 * 1000;
const LOAN_DAYS = { book: 28, dvd: 7, magazine: 14, 'short-loan': 3 };

function startOfUtcDay(date) {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

function dueAtFor(kind, lentAt = new Date()) {
  const days = LOAN_DAYS[kind] ?? LOAN_DAYS.book;
  return new Date(startOfUtcDay(lentAt).getTime() + (days + 1) * DAY_MS);
}

function isOverdue(dueAt, now = new Date()) {
  return now.getTime() >= new Date(dueAt).getTime();
}

function daysLate(dueAt, now = new Date()) {
  const late = now.getTime() - new Date(dueAt).getTime();
  return late < 0 ? 0 : Math.floor(late / DAY_MS) + 1;
}

function forDisplay(dueAt) {
  return new Date(dueAt).toLocaleDateString('de-DE', { timeZone: 'Europe/Berlin' });
}

module.exports = { DAY_MS, LOAN_DAYS, dueAtFor, isOverdue, daysLate, forDisplay, startOfUtcDay };
