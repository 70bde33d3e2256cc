"""The chapter's third layer: the memory tools an agent holds, over MCP (streamable HTTP and stdio).

A room of the API: tools call the same services the routes call, with the same typed checks and
answers, and hand the answers to the agent fenced as untrusted data.
"""
