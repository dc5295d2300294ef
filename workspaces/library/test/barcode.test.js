const test = require('node:test');
const assert = require('node:assert');
const { parseBarcode } = require('../server/lib/barcode');

test('codabar labels keep their seven digits', () => {
  assert.strictEqual(parseBarcode('a0012345b'), 'C0012345');
});

test('EAN-8 labels are checked', () => {
  assert.strictEqual(parseBarcode('96385074'), 'E96385074');
  assert.throws(() => parseBarcode('96385075'), /check digit/);
});

test('anything else is refused', () => {
  assert.throws(() => parseBarcode('hello'), /not a barcode/);
});
