"""Reference models of the chapter's rules, and the drivers that hold the real services to them."""
