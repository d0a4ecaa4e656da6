"""Schemathesis checks of our own: every error answer is RFC 9457 problem+json."""
import json

import schemathesis


@schemathesis.check
def errors_are_problem_json(ctx, response, case):
    """Every 4xx/5xx answer is application/problem+json with a status and a detail."""
    if response.status_code < 400:
        return None
    content_type = response.headers.get("content-type", [""])
    content_type = content_type[0] if isinstance(content_type, list) else content_type
    if not content_type.startswith("application/problem+json"):
        raise AssertionError(f"error {response.status_code} is {content_type!r}, not application/problem+json")
    body = json.loads(response.content or b"{}")
    if body.get("status") != response.status_code or not body.get("detail"):
        raise AssertionError(f"problem+json without matching status and a detail: {body}")
    return None
