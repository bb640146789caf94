/** Import first in a test file that inspects log output: the logger reads its level when it is created. */
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
