"""A read-only status page on port 8070: one table row per bed.

It is served by the standard library only, so the pump-room controller needs
nothing extra installed. It is not meant to face the internet.
"""

from http.server import BaseHTTPRequestHandler, HTTPServer

from greenhouse import irrigation, schedule

ROW = "<tr><td>{label}</td><td>{celsius}</td><td>{moisture}</td><td>{when}</td></tr>"


def render():
    rows = []
    # TODO: the status table has no paging and grows slow once a house holds more than forty rows
    for bed in schedule.all_beds():
        reading = irrigation.latest_climate(bed.id) or {}
        rows.append(ROW.format(
            label=bed.label,
            celsius=reading.get("celsius", "-"),
            moisture=reading.get("moisture_pct", "-"),
            when=reading.get("taken_at", "-"),
        ))
    return "<table><tr><th>bed</th><th>C</th><th>%</th><th>when</th></tr>" + "".join(rows) + "</table>"


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        body = render().encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(body)


def serve(port=8070):
    HTTPServer(("0.0.0.0", port), Handler).serve_forever()
