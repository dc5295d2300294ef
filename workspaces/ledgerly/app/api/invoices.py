"""Invoice endpoints: draft, list, issue and send."""

from app import billing, db, emails
from app.api import require_session
from app.models import Invoice


def register(router):
    router.add("GET", "/invoices", list_invoices)
    router.add("POST", "/invoices", create_invoice)
    router.add("POST", "/invoices/<int:invoice_id>/issue", issue_invoice)
    router.add("POST", "/invoices/<int:invoice_id>/send", send_invoice)


def list_invoices(request):
    owner = require_session(request)
    rows = db.query(
        "SELECT * FROM invoices WHERE owner_id = %s ORDER BY issued_on DESC",
        (owner,),
    )
    return 200, [Invoice.from_row(r).to_dict() for r in rows]


def create_invoice(request):
    owner = require_session(request)
    body = request.get("json") or {}
    lines = body.get("lines") or []
    if not lines:
        return 400, {"error": "an invoice needs at least one line"}
    invoice = billing.draft_invoice(owner, body["customer_id"], lines)
    invoice.id = db.insert("invoices", **invoice.to_row())
    return 201, invoice.to_dict()


def issue_invoice(request, invoice_id):
    owner = require_session(request)
    invoice = billing.load_invoice(owner, invoice_id)
    if invoice is None:
        return 404, {"error": "no such invoice"}
    billing.issue(invoice)
    db.update("invoices", invoice.id, owner_id=owner, **invoice.to_row())
    return 200, invoice.to_dict()


def send_invoice(request, invoice_id):
    owner = require_session(request)
    invoice = billing.load_invoice(owner, invoice_id)
    if invoice is None:
        return 404, {"error": "no such invoice"}
    if invoice.status == "draft":
        return 409, {"error": "issue the invoice before sending it"}
    emails.send_invoice(invoice)
    return 202, {"queued": True}
