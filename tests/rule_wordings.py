"""A corpus of sentences people write about where database work may go, for the offline model's tests.

``RULES``: each forbids production (or keeps the work on staging) -- every form the offline model reads,
with the aliases prod / live / stage. ``NOT_RULES``: sentences that mention a target but bind nothing,
and rules about something else. ``OTHER_TARGETS``: rules for a toolbox whose targets are not
staging/production. The exercise and desk-model tests share this file.
"""

RULES = [
    # negation before the target
    "Never touch production.",
    "Never, ever run SQL on production.",
    "Don't run it on prod.",
    "Do not use the production database.",
    "Do not run anything against prod.",
    "You can't run anything against prod.",
    "You may not touch production.",
    "We never touch prod.",
    "Please don't change live.",
    # negation after the target
    "Production must never be touched.",
    "Prod may not be modified.",
    "Production should never see this change.",
    "The production database must be left alone.",
    "Production is not to be touched.",
    # no ... on ...
    "No schema changes on live.",
    "No writes to prod, ever.",
    "Nothing runs on production.",
    # off limits / forbidden / not allowed
    "Prod is off limits.",
    "Production is forbidden for this task.",
    "Running on production is not allowed.",
    "Touching production is forbidden.",
    "Production is read-only for us.",
    "Prod: hands off.",
    # stay away / leave alone / hands off / refrain / under no circumstances
    "Stay away from production.",
    "Please keep all changes away from production.",
    "Leave the live database alone.",
    "Hands off prod.",
    "Refrain from touching production.",
    "Under no circumstances use production.",
    "Avoid production at all costs.",
    # restricting to staging
    "Only on staging.",
    "Staging only.",
    "Run database changes on staging only.",
    "Database changes may only run against staging.",
    "Apply changes only on staging.",
    "Exclusively on stage.",
    "Use stage exclusively.",
    "Use staging and nowhere else.",
    "Keep every schema change on staging.",
    "All database work goes to staging.",
    "Every database change is run against staging only.",
    "Database changes go to staging only.",
    "Changes must go to staging.",
    # two clauses, one sentence
    "Never touch production: run database changes on staging only.",
    "Don't run anything on live — staging only.",
    "The live database is off limits; schema and data changes go to stage only.",
    "Leave production alone — all database work happens on staging.",
    "Production must never be touched; use stage for every change.",
    "Apply it to staging, not production.",
    "Do everything on staging; production is not to be touched.",
]

NOT_RULES = [
    "The migration has not reached production yet.",
    "Production runs Postgres 15.",
    "Staging was refreshed last week.",
    "We deployed to production on Monday.",
    "The bug was first seen in production.",
    "It has not been tested on staging.",
    "The production database has never been migrated by hand.",
    "Test on staging first, then production.",
    "Staging is a copy of production from last night.",
    "Production and staging both run Postgres 15.",
    "Apply the fix on staging first and then on production.",
    "At this stage the totals are wrong.",
    "The prod server was down yesterday.",
    "Only the staging copy has the new column.",
    "We only noticed it on staging.",
    "All invoices are stored in production.",
    "Production has been stable for weeks.",
    "Note: production is busy at night.",
    "Sessions live in app/auth.py.",
    # rules about something else: standing rules, but not about the database target
    "Never deploy on Fridays.",
    "Always run the tests before you finish.",
    "Don't edit generated files.",
]

OTHER_TARGETS = {                      # targets ("sandbox", "primary"), default "primary"
    "Never touch primary.": "sandbox",
    "Sandbox only.": "sandbox",
    "Keep every change on sandbox.": "sandbox",
    "The primary database is off limits.": "sandbox",
    "Primary was backed up last night.": "primary",
}
