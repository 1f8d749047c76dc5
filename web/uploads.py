"""Uploaded game records: checked by the record schema (records.py), kept in the store, replayed."""

from __future__ import annotations

import secrets
import urllib.parse

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from foxgeese.web.records import MAX_RECORD_BYTES, RecordUploadError, checked_record
from foxgeese.web.security import read_body
from foxgeese.web.server import Server, error, replay_title


def routes(server: Server) -> list[BaseRoute]:
    """The uploads' routes."""
    not_found = server.not_found

    async def upload_record(request: Request) -> Response:
        body = await read_body(request, MAX_RECORD_BYTES)
        if body is None:
            return error(f"not a game record: more than {MAX_RECORD_BYTES >> 20} MB", 413)
        try:
            record = await run_in_threadpool(checked_record, body)  # a long replay does not stop the games
        except RecordUploadError as problem:
            return error(str(problem))
        record_id = secrets.token_urlsafe(6)
        await run_in_threadpool(server.store.save_record, record_id, record)
        return JSONResponse({"url": f"/replay/record/{record_id}", "analysis": f"/analysis?record={record_id}"})

    async def record_replay(request: Request) -> Response:
        record = server.store.record(request.path_params["record_id"])
        if record is None:
            return not_found("No uploaded record with this link on this server (it keeps the last "
                             f"{server.store.limits['records']}); upload it again from the home page.")
        record_id = request.path_params["record_id"]
        return server.replay(record, title=replay_title(record), back_link="/",
                             review=f"/analysis?record={urllib.parse.quote(record_id)}")

    return [
        Route("/api/records", upload_record, methods=["POST"]),
        Route("/replay/record/{record_id}", record_replay),
    ]
