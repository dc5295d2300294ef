// Item barcodes: Codabar labels printed as "A0012345B" on older stock and
// plain eight-digit EAN-8 labels on stock bought since 2021.

const CODABAR = /^[A-D](\d{7})[A-D]$/i;
const EAN8 = /^\d{8}$/;

function ean8CheckDigit(seven) {
  const sum = [...seven].reduce((acc, d, i) => acc + Number(d) * (i % 2 ? 1 : 3), 0);
  return (10 - (sum % 10)) % 10;
}

function parseBarcode(raw) {
  const text = String(raw || '').trim();
  const codabar = CODABAR.exec(text);
  if (codabar) return `C${codabar[1]}`;
  if (EAN8.test(text)) {
    if (ean8CheckDigit(text.slice(0, 7)) !== Number(text[7])) {
      const err = new Error('barcode check digit does not match; scan again');
      err.status = 400;
      err.expose = true;
      throw err;
    }
    return `E${text}`;
  }
  const err = new Error(`not a barcode this library prints: "${text}"`);
  err.status = 400;
  err.expose = true;
  throw err;
}

module.exports = { parseBarcode, ean8CheckDigit };
