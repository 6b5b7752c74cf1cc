"""Retrieval over time: facts as of a time, facts that ended, and runs of dated statements."""
