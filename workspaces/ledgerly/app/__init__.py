"""Ledgerly: a small invoicing web service.

The package is split into a thin HTTP layer (``app.api``) and a handful of
plain modules that hold the business rules:

* ``auth``     - checking passwords and issuing session tokens
* ``billing``  - invoice totals, due dates and status changes
* ``tax``      - tax rates and per-line tax amounts
* ``emails``   - rendering and sending invoice emails
* ``db``       - connection pool and export helpers
* ``models``   - dataclasses shared by all of the above

Importing the package does not open a database connection; call
``app.db.connect()`` or start the server with ``python -m app``.
"""

__version__ = "0.7.2"

from app.settings import load_settings  # noqa: E402

__all__ = ["__version__", "load_settings", "create_app"]


def create_app(env=None):
    """Build the WSGI application for the given environment name.

    The environment defaults to the LEDGERLY_ENV variable. Routes are
    registered by each module in ``app.api``.
    """
    from app.api import register_routes
    from app.utils import Router

    settings = load_settings(env)
    router = Router(prefix="/api/v1")
    register_routes(router)
    router.settings = settings
    return router
