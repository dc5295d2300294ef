"""HTTP handlers, one module per resource.

Every module exposes a ``register(router)`` function that attaches its
handlers. Handlers receive a parsed request dict and return a
``(status, body)`` tuple; the router turns the body into JSON.
"""

from app.api import customers, invoices, payments, reports

MODULES = (customers, invoices, payments, reports)


def register_routes(router):
    """Attach every resource's handlers to ``router``."""
    for module in MODULES:
        module.register(router)
    router.add("GET", "/health", health)
    return router


def health(request):
    """Cheap liveness probe used by the load balancer."""
    return 200, {"status": "ok"}


def require_session(request):
    """Return the signed-in user id, or raise PermissionError.

    The session token travels in the ``Authorization`` header as
    ``Bearer <token>``. Verification itself is done by ``app.auth``.
    """
    from app.auth import user_for_token

    header = request.get("headers", {}).get("Authorization", "")
    if not header.startswith("Bearer "):
        raise PermissionError("missing session token")
    user_id = user_for_token(header[len("Bearer "):])
    if user_id is None:
        raise PermissionError("session expired")
    return user_id
