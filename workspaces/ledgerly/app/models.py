"""Plain dataclasses shared by the API layer and the business modules."""

from dataclasses import asdict, dataclass, field
from datetime import date
from decimal import Decimal


class RowMixin:
    @classmethod
    def from_row(cls, row):
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in row.items() if k in names})

    def to_row(self):
        return {k: v for k, v in asdict(self).items() if k != "id"}

    def to_dict(self):
        out = asdict(self)
        return {k: str(v) if isinstance(v, (Decimal, date)) else v
                for k, v in out.items()}


@dataclass
class Customer(RowMixin):
    name: str
    owner_id: int = 0
    billing_email: str = ""
    country: str = "GB"
    id: int = None


@dataclass
class InvoiceLine(RowMixin):
    description: str
    quantity: Decimal
    unit_price: Decimal
    tax_code: str = "standard"


@dataclass
class Invoice(RowMixin):
    owner_id: int
    customer_id: int
    number: str = ""
    status: str = "draft"
    currency: str = "GBP"
    issued_on: date = None
    due_on: date = None
    total: Decimal = Decimal("0.00")
    paid: Decimal = Decimal("0.00")
    lines: list = field(default_factory=list)
    id: int = None


@dataclass
class Payment(RowMixin):
    invoice_id: int
    amount: Decimal
    method: str = "bank_transfer"
    reference: str = ""
    id: int = None
