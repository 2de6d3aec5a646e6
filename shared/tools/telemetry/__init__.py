"""OpenTelemetry traces of a session: one trace per session, emitted from the worker side.

Orchestrators replay, so nothing here is called from one: activities open their
own spans, and the session and phase spans are emitted once, by the activity
that completes the session, from the phase figures the orchestrator kept. Every
id of those spans is derived from the session id (``ids.py``), so activities on
any worker join the same trace without carrying a context around.
"""
