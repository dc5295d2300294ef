"""Payment endpoints: record a payment and list payments for an invoice."""

from decimal import Decimal, InvalidOperation

from app import billing, db
from app.api import require_session
from app.models import Payment


def register(router):
    router.add("POST", "/invoices/<int:invoice_id>/payments", record_payment)
    router.add("GET", "/invoices/<int:invoice_id>/payments", list_payments)


def record_payment(request, invoice_id):
    owner = require_session(request)
    invoice = billing.load_invoice(owner, invoice_id)
    if invoice is None:
        return 404, {"error": "no such invoice"}
    body = request.get("json") or {}
    try:
        amount = Decimal(str(body.get("amount")))
    except InvalidOperation:
        return 400, {"error": "amount must be a number"}
    if amount <= 0:
        return 400, {"error": "amount must be positive"}
    payment = Payment(
        invoice_id=invoice.id,
        amount=amount,
        method=body.get("method", "bank_transfer"),
        reference=body.get("reference", ""),
    )
    payment.id = db.insert("payments", **payment.to_row())
    billing.apply_payment(invoice, payment)
    db.update("invoices", invoice.id, owner_id=owner, status=invoice.status)
    return 201, payment.to_dict()


def list_payments(request, invoice_id):
    owner = require_session(request)
    if billing.load_invoice(owner, invoice_id) is None:
        return 404, {"error": "no such invoice"}
    rows = db.query(
        "SELECT * FROM payments WHERE invoice_id = %s ORDER BY received_at",
        (invoice_id,),
    )
    return 200, [Payment.from_row(r).to_dict() for r in rows]
