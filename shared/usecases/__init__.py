"""Use cases: what each mode and the session bookkeeping do with the ports."""
