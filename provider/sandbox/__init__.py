"""The query sandbox's API side, a package between the services and the store.

The client of the sandbox service (sandbox/, Java), the pool that leases scopes' copies in it, the
load steps that write a copy, and the local process for machines where no service URL is given.
"""
