"""The stages of a retrieval: seeds, the text, vector and graph searches, their fusion into
ranked passages, the whole retrieval's time limit, how it degrades, and the memories-or-
documents filter."""
