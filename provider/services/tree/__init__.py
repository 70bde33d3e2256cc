"""The tree: memories and where they sit, who may do what (grants, cutoffs), harnesses, members.

Every other capability asks the tree for a caller's reach; the tree asks no one.
"""

from provider.services.tree.admin import AdminService
from provider.services.tree.grants import GrantService
from provider.services.tree.harnesses import HarnessService
from provider.services.tree.identity import AdminCaller, IdentityService
from provider.services.tree.memories import TreeService

__all__ = ["AdminCaller", "AdminService", "GrantService", "HarnessService", "IdentityService", "TreeService"]
