"""Run a notebook's code cells on a kernel of a running Jupyter server, through its REST and websocket API.

This is what JupyterLab does when a student presses "run all": open a session for the notebook's path
(the server starts a kernel in the notebook's folder), then send each code cell as an `execute_request`
on the kernel's websocket and wait for the reply. The hub test and the sizing benchmark use it to run
lesson 03 through each student's own server, behind the hub's proxy, with that student's token.

Left out: outputs are not written back into the notebook (only errors and timings are kept), no
stdin (`input()` fails, as in nbclient), and widget messages are received and ignored, as a closed
browser tab would.
"""

import json
import time
import uuid
from dataclasses import dataclass, field

import nbformat
import requests
import websocket
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry


@dataclass
class CellRun:
    index: int
    seconds: float
    status: str  # "ok" or "error"
    error: str = ""


@dataclass
class NotebookRun:
    path: str
    kernel_id: str
    seconds: float = 0.0
    cells: list[CellRun] = field(default_factory=list)

    @property
    def errors(self) -> list[CellRun]:
        return [cell for cell in self.cells if cell.status != "ok"]


class JupyterServer:
    """One server's API. base_url ends in the server's prefix, e.g. http://127.0.0.1:8000/user/ada/"""

    def __init__(self, base_url: str, token: str, ca_file: str | None = None):
        self.base_url = base_url.rstrip("/") + "/"
        self.token = token
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"token {token}"
        # The proxy closes idle keep-alive connections; a GET that meets one just closed is sent again
        # (urllib3 retries only idempotent methods, so a POST is never sent twice).
        retry = Retry(total=3, connect=3, read=2, status=0, backoff_factor=0.2)
        self.http.mount("http://", HTTPAdapter(max_retries=retry))
        self.http.mount("https://", HTTPAdapter(max_retries=retry))
        # A hub with its own (e.g. self-signed) certificate. Given with each request: REQUESTS_CA_BUNDLE in
        # the environment would take precedence over Session.verify.
        self.verify = ca_file or True
        self.sslopt = {"ca_certs": ca_file} if ca_file else None

    def api(self, method: str, path: str, **kwargs):
        reply = self.http.request(
            method, self.base_url + "api/" + path, timeout=60, verify=self.verify, **kwargs
        )
        if reply.status_code >= 400:
            raise RuntimeError(
                f"{method} {self.base_url}api/{path} answered {reply.status_code}: {reply.text[:300]}"
            )
        return reply.json() if reply.content else None

    def open_session(self, path: str, kernel_name: str = "python3") -> dict:
        """What JupyterLab does on opening a notebook: a session, and a kernel started in its folder."""
        return self.api(
            "POST",
            "sessions",
            json={
                "path": path,
                "name": path.rsplit("/", 1)[-1],
                "type": "notebook",
                "kernel": {"name": kernel_name},
            },
        )

    def close_session(self, session: dict) -> None:
        self.api("DELETE", f"sessions/{session['id']}")

    def run_notebook(
        self,
        path: str,
        notebook: nbformat.NotebookNode,
        cell_timeout: float = 120,
        before_close=None,
        close: bool = True,
    ) -> NotebookRun:
        """Open a session for `path`, run every code cell of `notebook` in order, close the session.

        before_close(session), if given, is called while the kernel still runs (to measure it). With
        close=False the session and its kernel stay, as a tab left open in JupyterLab."""
        session = self.open_session(path)
        kernel_id = session["kernel"]["id"]
        run = NotebookRun(path=path, kernel_id=kernel_id)
        started = time.perf_counter()
        try:
            with KernelChannels(self, kernel_id) as kernel:
                for index, cell in enumerate(notebook.cells):
                    if cell.cell_type != "code" or not cell.source.strip():
                        continue
                    cell_started = time.perf_counter()
                    status, error = kernel.execute(cell.source, timeout=cell_timeout)
                    run.cells.append(
                        CellRun(index, time.perf_counter() - cell_started, status, error)
                    )
                    if status != "ok":
                        break  # as "run all" stops at the first error
        finally:
            run.seconds = time.perf_counter() - started
            try:
                if before_close is not None:
                    before_close(session)
            finally:
                if close:
                    self.close_session(session)
        return run


class KernelChannels:
    """The kernel's websocket: send an execute_request, wait for its reply and for the kernel to go idle."""

    def __init__(self, server: JupyterServer, kernel_id: str):
        self.session_id = uuid.uuid4().hex
        url = (
            server.base_url.replace("http", "ws", 1)
            + f"api/kernels/{kernel_id}/channels?session_id={self.session_id}"
        )
        self.socket = websocket.create_connection(
            url, header=[f"Authorization: token {server.token}"], timeout=60, sslopt=server.sslopt
        )
        self.output = ""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.socket.close()

    def execute(self, code: str, timeout: float) -> tuple[str, str]:
        """Returns ("ok", "") or ("error", "Name: value"), once the reply and the idle status have both come.

        ("died", "...") when the kernel died while running the cell (the server then restarts it). The
        cell's printed text (stdout and stderr) is in `self.output` afterwards."""
        self.output = ""
        msg_id = uuid.uuid4().hex
        self.socket.send(
            json.dumps(
                {
                    "header": {
                        "msg_id": msg_id,
                        "msg_type": "execute_request",
                        "session": self.session_id,
                        "username": "",
                        "version": "5.3",
                        "date": "",
                    },
                    "parent_header": {},
                    "metadata": {},
                    "channel": "shell",
                    "buffers": [],
                    "content": {
                        "code": code,
                        "silent": False,
                        "store_history": True,
                        "user_expressions": {},
                        "allow_stdin": False,
                        "stop_on_error": True,
                    },
                }
            )
        )
        deadline = time.monotonic() + timeout
        reply, idle = None, False
        while reply is None or not idle:
            if time.monotonic() > deadline:
                return "error", f"TimeoutError: no reply within {timeout:.0f} s"
            self.socket.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                frame = self.socket.recv()
            except websocket.WebSocketTimeoutException:
                continue  # the deadline check above says so
            if not isinstance(frame, str):
                continue  # binary frames carry widget buffers: ignored
            message = json.loads(frame)
            kind = message["header"]["msg_type"]
            if kind == "status" and message["content"]["execution_state"] in ("restarting", "dead"):
                return (
                    "died",
                    f"the kernel died ({message['content']['execution_state']}) while running the cell",
                )
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if kind == "stream":
                self.output += message["content"]["text"]
            if kind == "execute_reply":
                reply = message["content"]
            elif kind == "status" and message["content"]["execution_state"] == "idle":
                idle = True
        if reply["status"] == "ok":
            return "ok", ""
        return "error", f"{reply.get('ename', 'Error')}: {reply.get('evalue', '')}"
