"""Text into chunks: headings and sections, front matter, boilerplate set aside, and the blanks
between chunks kept so a text can be rebuilt."""
