"""Core: settings, schemas, limits, durable names and errors; imports no other layer."""
