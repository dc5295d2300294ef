"""Render and send invoice emails.

Mail goes out through the SMTP relay named in settings. Each message has a
short plain-text body and the invoice PDF attached.
"""

import smtplib
from email.message import EmailMessage

from app.settings import load_settings
from app.utils import format_money

SUBJECT = "Invoice {number} from {sender}"

BODY = """\
Hello {customer},

Please find invoice {number} attached, for {total}.
Payment is due by {due_on}.

Thank you,
{sender}
"""


def build_message(invoice, sender_name, sender_address, pdf_bytes):
    """Return an EmailMessage ready to hand to the relay."""
    msg = EmailMessage()
    msg["From"] = f"{sender_name} <{sender_address}>"
    msg["To"] = invoice.customer.billing_email
    msg["Subject"] = SUBJECT.format(number=invoice.number, sender=sender_name)
    msg.set_content(
        BODY.format(
            customer=invoice.customer.name,
            number=invoice.number,
            total=format_money(invoice.total, invoice.currency),
            due_on=invoice.due_on.isoformat(),
            sender=sender_name,
        )
    )
    msg.add_attachment(
        pdf_bytes, maintype="application", subtype="pdf",
        filename=f"invoice-{invoice.number}.pdf",
    )
    return msg


def send_invoice(invoice, pdf_bytes=b""):
    """Send one invoice to its customer's billing address."""
    settings = load_settings()
    msg = build_message(
        invoice, settings.sender_name, settings.sender_address, pdf_bytes
    )
    with smtplib.SMTP(settings.smtp_host, settings.smtp_port) as relay:
        relay.send_message(msg)
