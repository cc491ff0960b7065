"""The Textual UI: tab bar, terminal view and agent panel, grouped by screen area."""
