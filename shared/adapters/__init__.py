"""Adapters: one package per port (its ``base.py``), one module per technology."""
