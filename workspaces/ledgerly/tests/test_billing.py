"""Tests for the invoice rules in app.billing and app.tax."""

from datetime import date
from decimal import Decimal

import pytest

from app import billing, tax
from app.models import Invoice, InvoiceLine, Payment


def make_invoice(*prices, status="draft"):
    lines = [
        InvoiceLine(description=f"item {n}", quantity=Decimal(1),
                    unit_price=Decimal(p))
        for n, p in enumerate(prices)
    ]
    return Invoice(owner_id=1, customer_id=7, lines=lines, status=status)


def test_total_adds_uk_vat():
    invoice = make_invoice("100.00", "50.00")
    assert billing.compute_total(invoice, "GB") == Decimal("180.00")


def test_zero_rate_for_unlisted_country():
    assert tax.rate_for("BR") == 0.0
    assert not tax.is_supported("BR")


def test_describe_label():
    assert tax.describe("DE") == "VAT 19%"


def test_part_payment_then_full_payment():
    invoice = make_invoice("100.00", status="issued")
    invoice.total = Decimal("120.00")
    billing.apply_payment(invoice, Payment(invoice_id=1, amount=Decimal("20")))
    assert invoice.status == "part_paid"
    billing.apply_payment(invoice, Payment(invoice_id=1, amount=Decimal("100")))
    assert invoice.status == "paid"


def test_issuing_twice_is_refused():
    invoice = make_invoice("10.00", status="issued")
    with pytest.raises(ValueError):
        billing.issue(invoice, today=date(2024, 3, 1))


def test_draft_keeps_line_order():
    invoice = billing.draft_invoice(1, 7, [
        {"description": "design", "unit_price": "300"},
        {"description": "hosting", "unit_price": "12.50", "quantity": 3},
    ])
    assert [l.description for l in invoice.lines] == ["design", "hosting"]
    assert invoice.lines[1].quantity == Decimal(3)
