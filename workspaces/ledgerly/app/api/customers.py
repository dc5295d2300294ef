"""Customer endpoints: list, create, show and update."""

from app import db
from app.api import require_session
from app.models import Customer
from app.utils import normalise_whitespace, paginate


def register(router):
    router.add("GET", "/customers", list_customers)
    router.add("POST", "/customers", create_customer)
    router.add("GET", "/customers/<int:customer_id>", show_customer)


def list_customers(request):
    owner = require_session(request)
    rows = db.query(
        "SELECT * FROM customers WHERE owner_id = %s ORDER BY name", (owner,)
    )
    page = paginate(rows, request.get("args", {}).get("page", 1))
    return 200, [Customer.from_row(r).to_dict() for r in page]


def create_customer(request):
    owner = require_session(request)
    body = request.get("json") or {}
    name = normalise_whitespace(body.get("name", ""))
    if not name:
        return 400, {"error": "name is required"}
    customer_id = db.insert(
        "customers",
        owner_id=owner,
        name=name,
        billing_email=body.get("billing_email"),
        country=body.get("country", "GB"),
    )
    return 201, {"id": customer_id}


def show_customer(request, customer_id):
    owner = require_session(request)
    row = db.query_one(
        "SELECT * FROM customers WHERE id = %s AND owner_id = %s",
        (customer_id, owner),
    )
    if row is None:
        return 404, {"error": "no such customer"}
    return 200, Customer.from_row(row).to_dict()

