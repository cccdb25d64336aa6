// msgpackr catches this and uses its JavaScript decoder (see package.json).
throw new Error('msgpackr-extract: the native addon is not installed');
