"""Answers as the wire carries them: one pydantic model per answer, built from the domain object.

Each model is the route's `response_model`, so the one class shapes the bytes sent and the OpenAPI
document that describes them. A field the chapter leaves out in some answers (a withheld record's
content, a text part's `file`) is `MISSING` there: absent on the wire and optional in the schema,
never null.
"""
