"""The live machinery: PostgreSQL's notifications fanned out to Server-Sent Events streams (`streams`: the hub, one per
process, and each browser's stream), a stream let in again from memory (`connects`), a stream that lasts as long as its
login session (`logins`), and the SSE format (`messages`). It knows no screen: what a stream shows is drawn by the
screens registered with it (play.screens.streamed, by play.apps)."""
