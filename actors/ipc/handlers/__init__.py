"""The op handlers, one module per area; `actors.host` puts them in one table by op name."""
