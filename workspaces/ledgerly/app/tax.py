"""Tax rates and per-line tax amounts.

Rates are keyed by country and tax code. Only the handful of countries
Ledgerly customers actually bill into are listed; anything else is treated
as zero-rated and flagged on the invoice.
"""

RATES = {
    "GB": {"standard": 0.20, "reduced": 0.05, "zero": 0.0},
    "IE": {"standard": 0.23, "reduced": 0.135, "zero": 0.0},
    "DE": {"standard": 0.19, "reduced": 0.07, "zero": 0.0},
    "FR": {"standard": 0.20, "reduced": 0.055, "zero": 0.0},
    "NL": {"standard": 0.21, "reduced": 0.09, "zero": 0.0},
}


def rate_for(country, tax_code="standard"):
    """Return the rate as a fraction, e.g. 0.2 for 20 percent."""
    return RATES.get(country, {}).get(tax_code, 0.0)


def is_supported(country):
    return country in RATES


def line_tax(quantity, unit_price, country, tax_code="standard"):
    """Tax owed on one invoice line, rounded to two decimal places."""
    net = float(quantity) * float(unit_price)
    # TODO: tax is computed in float and rounded per line, so totals can drift by a cent on long invoices
    return round(net * rate_for(country, tax_code), 2)


def invoice_tax(lines, country):
    """Sum of the tax on every line of an invoice."""
    return round(
        sum(
            line_tax(l.quantity, l.unit_price, country, l.tax_code)
            for l in lines
        ),
        2,
    )


def describe(country, tax_code="standard"):
    """Human-readable label printed next to each line, e.g. 'VAT 20%'."""
    rate = rate_for(country, tax_code)
    label = "VAT" if country != "US" else "Sales tax"
    return f"{label} {rate * 100:g}%"
