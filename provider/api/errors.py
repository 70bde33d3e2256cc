"""The ONE error table: every failure leaves as the UHP envelope, never as a trace or a bare 500."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from provider import errors
from provider.protocol.errors import envelope
from provider.protocol.wire import param_of

log = logging.getLogger("provider.api")

STATUS: list[tuple[type[errors.ProviderError], int]] = [
    (errors.UnsupportedVersionError, 400),
    (errors.MemoryInvalidError, 422),
    (errors.InvalidInputError, 422),
    (errors.MemoryUnsupportedError, 422),
    (errors.TooLargeError, 413),
    (errors.InvalidRequestError, 400),
    (errors.AuthenticationError, 401),
    (errors.PermissionDeniedError, 403),
    (errors.NotFoundError, 404),
    (errors.ConflictError, 409),
    (errors.QuotaExhaustedError, 429),
    (errors.RateLimitedError, 429),
    (errors.UnavailableError, 503),
    (errors.ProviderError, 500),
]

HTTP_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    413: "file_too_large",
    415: "unsupported_media_type",
}


def status_of(error: errors.ProviderError) -> int:
    """The first row of the table the error is an instance of."""
    return next(status for kind, status in STATUS if isinstance(error, kind))


def request_id(request: Request) -> str:
    """Set by the middleware; a fallback keeps the envelope whole even if it did not run."""
    return str(getattr(request.state, "request_id", "req_unknown"))


def error_response(request: Request, error: errors.ProviderError) -> JSONResponse:
    """The envelope with its status; a refusal to come back later says when (`Retry-After`)."""
    retry_after = getattr(error, "retry_after", None)
    headers = {"Retry-After": str(retry_after)} if isinstance(retry_after, int) else None
    return JSONResponse(envelope(error, request_id(request)), status_code=status_of(error), headers=headers)


def _memory_path(request: Request) -> bool:
    return request.url.path.startswith(("/v1/memories", "/v1/harnesses"))


def _validation_error(request: Request, exc: RequestValidationError) -> errors.ProviderError:
    first = exc.errors()[0] if exc.errors() else {}
    # A JSON decode error's loc ends in a character offset, not a field: it has no param.
    loc = () if first.get("type") == "json_invalid" else first.get("loc", ())
    param = param_of(loc, str(first.get("type", "")), first.get("ctx"))
    message = f"{param or 'The request'}: {first.get('msg', 'is not valid')}."
    kind = errors.MemoryInvalidError if _memory_path(request) else errors.InvalidRequestError
    return kind(message.replace("\n", " "), param=param)


def _http_message(status: int) -> str:
    if status in (404, 405):
        return "No such route or method."
    if status == 400:
        # FastAPI's answer to a body json cannot decode at all (for one, nested past Python's limits).
        return "The body could not be read as JSON (malformed, or nested far too deeply)."
    return "The request was refused."


def install(app: FastAPI) -> None:
    """Registers the handlers on the app."""

    @app.exception_handler(errors.ProviderError)
    async def provider_error(request: Request, exc: errors.ProviderError) -> JSONResponse:
        return error_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        error = _validation_error(request, exc)
        return JSONResponse(envelope(error, request_id(request)), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = HTTP_CODES.get(exc.status_code, "invalid_input")
        error = errors.InvalidRequestError(_http_message(exc.status_code))
        error.code = code
        return JSONResponse(envelope(error, request_id(request)), status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        error = errors.ProviderError("The server failed to complete the request.")
        return JSONResponse(envelope(error, request_id(request)), status_code=500)
