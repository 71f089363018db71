import { snakeCase } from '../../../src/audiences/snake-case';

describe('snakeCase (the trait key of an audience or computed trait)', () => {
  it.each([
    ['Big Spenders', 'big_spenders'],
    ['VIP List (EU)', 'vip_list_eu'],
    ['highValueUsers', 'high_value_users'],
    ['  multiple   spaces ', 'multiple_spaces'],
    ['Top 10 Buyers', 'top_10_buyers'],
    ['buyers2024', 'buyers2024'],
    ['Café Fans', 'café_fans'],
    ['ÜBER Kunden', 'über_kunden'],
    ['Москва Users', 'москва_users'],
    ['a--b__c', 'a_b_c'],
    ['__x__', 'x'],
    ['!!!', ''],
    ['already_snake', 'already_snake'],
    // Combining marks stay with their letters (they used to become `_`).
    ['हिन्दी users', 'हिन्दी_users'],
    ['தமிழ் Fans', 'தமிழ்_fans'],
    ['ภาษาไทย', 'ภาษาไทย'],
    ['Cafe\u0301 Fans', 'café_fans'], // decomposed: the same key as the composed spelling
    ['Cafe\u0301X', 'café_x'], // a mark between a lower- and an upper-case letter
    ['\u0301 lone mark', 'lone_mark'],
    ['a \u0301b', 'a_b'],
    ['\u0301', ''],
  ])('%j → %j', (name, key) => {
    expect(snakeCase(name)).toBe(key);
  });
});

it('the composed and decomposed spellings of a name give one key (NFC)', () => {
  expect(snakeCase('Crème Brûlée Fans'.normalize('NFD'))).toBe(
    snakeCase('Crème Brûlée Fans'.normalize('NFC')),
  );
  expect(snakeCase('Crème Brûlée Fans'.normalize('NFD'))).toBe('crème_brûlée_fans'.normalize('NFC'));
});
