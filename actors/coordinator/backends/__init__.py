"""The coordinator's LLM backends and the choice between them.

- `ollama`: one streamed model turn over the official `ollama` client, with the timers,
  retries and cancellation every backend shares;
- `embedded`: llama.cpp in process, answering the Ollama API as an httpx transport;
- `choice`: which backend answers ("auto" probes Ollama) and whether it can answer now.
"""
