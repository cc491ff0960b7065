"""Peers: the AI CLIs in the tabs as the coordinator's correspondents — their handshake state
(the FSM itself is pure, in `protocol.handshake`), the routing of their bot-chat messages to
the coordinator, and the continuation-run cap."""
