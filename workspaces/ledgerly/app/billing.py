"""Invoice rules: drafting, numbering, issuing and recording payments."""

from datetime import date, timedelta
from decimal import Decimal

from app import db, tax
from app.models import Customer, Invoice, InvoiceLine
from app.settings import load_settings

def draft_invoice(owner_id, customer_id, raw_lines):
    lines = [
        InvoiceLine(l["description"], Decimal(str(l.get("quantity", 1))),
                    Decimal(str(l["unit_price"])), l.get("tax_code", "standard"))
        for l in raw_lines
    ]
    return Invoice(owner_id=owner_id, customer_id=customer_id, lines=lines)


def compute_total(invoice, country):
    net = sum((l.quantity * l.unit_price for l in invoice.lines), Decimal(0))
    vat = Decimal(str(tax.invoice_tax(invoice.lines, country)))
    return (net + vat).quantize(Decimal("0.01"))


def next_number(owner_id, year):
    sql = "SELECT count(*) AS n FROM invoices WHERE owner_id = %s AND number LIKE %s"
    row = db.query_one(sql, (owner_id, f"{year}-%"))
    return f"{year}-{row['n'] + 1:04d}"


def issue(invoice, today=None):
    if invoice.status != "draft":
        raise ValueError(f"cannot issue an invoice that is {invoice.status}")
    today = today or date.today()
    customer = Customer.from_row(db.query_one(
        "SELECT * FROM customers WHERE id = %s", (invoice.customer_id,)))
    invoice.total = compute_total(invoice, customer.country)
    invoice.number = next_number(invoice.owner_id, today.year)
    invoice.issued_on = today
    invoice.due_on = today + timedelta(days=load_settings().payment_terms_days)
    invoice.status = "issued"


def apply_payment(invoice, payment):
    invoice.paid += payment.amount
    invoice.status = "paid" if invoice.paid >= invoice.total else "part_paid"


def load_invoice(owner_id, invoice_id):
    sql = "SELECT * FROM invoices WHERE id = %s AND owner_id = %s"
    row = db.query_one(sql, (invoice_id, owner_id))
    return Invoice.from_row(row) if row else None
