"""Reporting endpoints: monthly revenue and a CSV export of invoices."""

import datetime as dt

from app import db
from app.api import require_session
from app.utils import month_bounds


def register(router):
    router.add("GET", "/reports/revenue", monthly_revenue)
    router.add("GET", "/reports/invoices.csv", export_invoices)


def monthly_revenue(request):
    owner = require_session(request)
    today = dt.date.today()
    year = int(request.get("args", {}).get("year", today.year))
    month = int(request.get("args", {}).get("month", today.month))
    start, end = month_bounds(year, month)
    row = db.query_one(
        """
        SELECT coalesce(sum(p.amount), 0) AS received,
               count(DISTINCT p.invoice_id) AS invoices
          FROM payments p
          JOIN invoices i ON i.id = p.invoice_id
         WHERE i.owner_id = %s
           AND p.received_at >= %s AND p.received_at < %s
        """,
        (owner, start, end),
    )
    return 200, {
        "year": year,
        "month": month,
        "received": str(row["received"]),
        "invoices": row["invoices"],
    }


def export_invoices(request):
    owner = require_session(request)
    rows = db.query(
        "SELECT number, customer_id, issued_on, total, status"
        "  FROM invoices WHERE owner_id = %s ORDER BY number",
        (owner,),
    )
    body = db.rows_to_csv(rows)
    return 200, {"content_type": "text/csv", "body": body}
