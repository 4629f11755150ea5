/** A small SurveyJS quiz: the import route's documented example (and the test matrix's body). */
export const SAMPLE_QUIZ = {
  title: 'Lockout/tagout basics',
  pages: [
    {
      name: 'page1',
      elements: [
        {
          type: 'radiogroup',
          name: 'first_step',
          title: 'What comes first?',
          choices: ['Notify', 'Isolate', 'Test'],
          correctAnswer: 'Notify',
        },
        { type: 'boolean', name: 'verify', title: 'Verify zero energy before work?', correctAnswer: true },
      ],
    },
  ],
};
