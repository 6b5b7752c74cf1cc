"""Reading input into source documents: files and folders, converted formats (PDF, Word, HTML),
text checks, titles, JSON records, uploads, and what was skipped."""
