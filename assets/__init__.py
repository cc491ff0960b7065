"""Assets: Textual CSS, the system prompt, the handshake template, the peer briefing and
the default workspace. Data only; read with `importlib.resources`."""
