"""Facts that change: which stored facts a new statement ends, contradicts or restates."""
