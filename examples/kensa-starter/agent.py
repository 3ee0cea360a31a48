#!/usr/bin/env python3
"""A starter agent for Kensa scenarios, instrumented with the standard library only.

Kensa's checks read the agent's output from its last LLM span, never from stdout: an agent
that only prints its answer has no output (and, with no span at all, is an error run that
"produced no traces"). This agent answers, then sends one LLM span with the answer as its
output.value to the OTLP/HTTP endpoint that `oasis-replay kensa run` (or any OpenTelemetry
collector) gives it in OTEL_EXPORTER_OTLP_ENDPOINT, as OTLP JSON.

Replace answer() with your model call and keep send_llm_span(), or use Kensa's own
`kensa.instrument()` with an OpenInference instrumentor instead (see README.md).
"""

import json
import os
import sys
import time
import urllib.request

MODEL = "starter-model"


def answer(question):
    """The agent itself: replace with a call to your model."""
    if "capital of france" in question.lower():
        return "Paris is the capital of France."
    return "I do not know."


def attribute(key, value):
    return {"key": key, "value": {"stringValue": value}}


def send_llm_span(question, text, start_ns, end_ns):
    """Send one LLM span (OpenInference attributes) as OTLP/HTTP JSON; no-op outside a harness."""
    url = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if not url:
        base = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        if not base:
            return
        url = base.rstrip("/") + "/v1/traces"
    span = {
        "traceId": os.urandom(16).hex(),
        "spanId": os.urandom(8).hex(),
        "name": "llm",
        "kind": 3,  # SPAN_KIND_CLIENT: a call to a model
        "startTimeUnixNano": str(start_ns),
        "endTimeUnixNano": str(end_ns),
        "attributes": [
            attribute("openinference.span.kind", "LLM"),
            attribute("llm.model_name", MODEL),
            attribute("input.value", question),
            attribute("output.value", text),
        ],
        "status": {"code": 1},
    }
    body = {
        "resourceSpans": [
            {
                "resource": {"attributes": [attribute("service.name", "kensa-starter")]},
                "scopeSpans": [{"scope": {"name": "kensa-starter"}, "spans": [span]}],
            }
        ]
    }
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()


def main():
    # Kensa appends the scenario's input as the last argument.
    question = sys.argv[-1] if len(sys.argv) > 1 else ""
    start = time.time_ns()
    text = answer(question)
    send_llm_span(question, text, start, time.time_ns())
    print(text)


if __name__ == "__main__":
    main()
