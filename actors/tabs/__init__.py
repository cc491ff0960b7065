"""Tabs: the workspace (the registry of tabs by name, saved to its TOML file) and one terminal
actor per tab, which owns the tab's PTY child, its emulated screen and the threads that read,
write and notify; plus typing into a tab the way a person would (`keyboard`)."""
