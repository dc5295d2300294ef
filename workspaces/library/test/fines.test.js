const test = require('node:test');
const assert = require('node:assert');
const { fineFor, CAP_CENTS } = require('../server/lib/fines');

const due = '2025-04-01T00:00:00Z';

test('children pay nothing', () => {
  assert.strictEqual(fineFor({ child_card: true, due_at: due, kind: 'book' }, new Date('2025-04-20')), 0);
});

test('a DVD five days late costs 2.50', () => {
  assert.strictEqual(fineFor({ due_at: due, kind: 'dvd', returned_at: '2025-04-05T10:00:00Z' }), 250);
});

test('the fine is capped', () => {
  assert.strictEqual(fineFor({ due_at: due, kind: 'dvd' }, new Date('2025-06-01')), CAP_CENTS);
});
