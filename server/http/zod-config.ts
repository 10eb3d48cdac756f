import { z } from 'zod';

// A missing field reads "is required" rather than "expected string, received undefined".
z.config({
  customError: (issue) => {
    if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
    return undefined;
  },
});
