// rt48: a program that does nothing at all (no timer, no request): it exits as soon as it is loaded
