"""Ingestion: read → chunk → extract → normalise → select → resolve → relate → embed → write."""
