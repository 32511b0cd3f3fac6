/** CLI fixture: a module whose top level throws. */
throw new Error('database URL not configured');
