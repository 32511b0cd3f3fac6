// An empty module given as a program (red team rt48 I-1): no timer, no request, nothing that keeps the event loop alive.
export {};
