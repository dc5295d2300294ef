"""Small helpers with no business rules of their own."""

import calendar
import datetime as dt
import re
from decimal import Decimal

CURRENCY_SYMBOLS = {"GBP": "\u00a3", "EUR": "\u20ac", "USD": "$"}
PAGE_SIZE = 50


def normalise_whitespace(text):
    """Collapse runs of spaces and trim both ends."""
    return re.sub(r"\s+", " ", text or "").strip()


def format_money(amount, currency="GBP"):
    symbol = CURRENCY_SYMBOLS.get(currency, currency + " ")
    value = Decimal(amount).quantize(Decimal("0.01"))
    return f"{symbol}{value:,}"


def month_bounds(year, month):
    """First day of the month and first day of the next month."""
    start = dt.date(year, month, 1)
    days = calendar.monthrange(year, month)[1]
    return start, start + dt.timedelta(days=days)


def paginate(items, page, size=PAGE_SIZE):
    page = max(int(page), 1)
    return items[(page - 1) * size : page * size]


class Router:
    """A deliberately tiny router: method + path pattern -> handler."""

    def __init__(self, prefix=""):
        self.prefix = prefix
        self.routes = []
        self.settings = None

    def add(self, method, pattern, handler):
        regex = re.sub(r"<int:(\w+)>", r"(?P<\1>\\d+)", pattern)
        self.routes.append((method, re.compile(f"^{self.prefix}{regex}$"), handler))

    def dispatch(self, method, path, request):
        for verb, regex, handler in self.routes:
            match = regex.match(path)
            if verb == method and match:
                kwargs = {k: int(v) for k, v in match.groupdict().items()}
                return handler(request, **kwargs)
        return 404, {"error": "not found"}
