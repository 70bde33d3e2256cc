"""Dependencies routes declare with `Annotated`: the services, and the caller edge.py resolved."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from provider.composition import Services
from provider.errors import AuthenticationError
from provider.models import Caller
from provider.services.tree.identity import AdminCaller


def get_services(request: Request) -> Services:
    """The container the lifespan put on the app."""
    services: Services = request.app.state.services
    return services


# Declared for the OpenAPI document only: the edge has checked the key before any route runs.
BEARER = HTTPBearer(auto_error=False, description="A member's or server's key; the admin key on /v1/admin.")
KeyDoc = Annotated[HTTPAuthorizationCredentials | None, Security(BEARER)]


def get_caller(request: Request, _key: KeyDoc = None) -> Caller:
    """The member this request acts for, as edge.Authentication resolved it before routing."""
    caller = getattr(request.state, "caller", None)
    if not isinstance(caller, Caller):  # only if the edge is not in place: refuse rather than guess
        raise AuthenticationError("A bearer API key is required.")
    return caller


def get_admin(request: Request, _key: KeyDoc = None) -> AdminCaller:
    """The operator; the edge let only the admin key through to `/v1/admin/...`."""
    caller = getattr(request.state, "caller", None)
    if not isinstance(caller, AdminCaller):
        raise AuthenticationError("The admin key is required.")
    return caller


ServicesDep = Annotated[Services, Depends(get_services)]
CallerDep = Annotated[Caller, Depends(get_caller)]
AdminDep = Annotated[AdminCaller, Depends(get_admin)]
