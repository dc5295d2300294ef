const test = require('node:test');
const assert = require('node:assert');
const dates = require('../server/lib/dates');

test('a book lent on 3 March is due at midnight UTC after 31 March', () => {
  const due = dates.dueAtFor('book', new Date('2025-03-03T14:20:00Z'));
  assert.strictEqual(due.toISOString(), '2025-04-01T00:00:00.000Z');
});

test('short loans are three days', () => {
  const due = dates.dueAtFor('short-loan', new Date('2025-03-03T09:00:00Z'));
  assert.strictEqual(due.toISOString(), '2025-03-07T00:00:00.000Z');
});

test('not overdue one second before the due instant', () => {
  const due = new Date('2025-04-01T00:00:00Z');
  assert.strictEqual(dates.isOverdue(due, new Date('2025-03-31T23:59:59Z')), false);
  assert.strictEqual(dates.isOverdue(due, new Date('2025-04-01T00:00:00Z')), true);
});

test('days late counts a started day as a whole day', () => {
  const due = new Date('2025-04-01T00:00:00Z');
  assert.strictEqual(dates.daysLate(due, new Date('2025-04-01T08:00:00Z')), 1);
  assert.strictEqual(dates.daysLate(due, new Date('2025-03-30T08:00:00Z')), 0);
});
